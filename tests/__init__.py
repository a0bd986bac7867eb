import pathlib
import sys

# The client library's tests test the client in this tree, not the copy `make install` put in the virtualenv (a
# change to clients/python does not refresh that copy: the install stamp follows the pyproject files only).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "clients" / "python" / "src"))
