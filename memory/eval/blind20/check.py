#!/usr/bin/env python3
"""Checker for the retrieval evaluation set blind20: the checker the sets blind3 to blind11 share
(memory/eval/check_blind_set.py), with this set's patient ids (d001-d020).   Usage: python3 check.py [evalset_dir]"""

import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.argv[1:] = [sys.argv[1] if len(sys.argv) > 1 else HERE, "d"]
runpy.run_path(os.path.join(HERE, "..", "check_blind_set.py"), run_name="__main__")
