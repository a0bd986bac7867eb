"""Token counting with a real tokenizer: OpenAI's ``cl100k_base`` BPE, run by ``tiktoken``.

``tiktoken.get_encoding("cl100k_base")`` downloads its BPE file on first use, which fails (or hangs) on machines
without internet access. The file ships with this app instead (``data/cl100k_base.tiktoken.gz``) and is verified
against the SHA-256 that tiktoken itself pins for it, so the counts are exactly tiktoken's, offline, and a changed
file refuses to load rather than count differently.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
from pathlib import Path

import tiktoken

TOKENIZER_NAME = "cl100k_base"
# tiktoken_ext.openai_public.cl100k_base: the expected hash of the uncompressed file, its pattern and specials.
_EXPECTED_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|"""
            r"""\s*[\r\n]|\s+(?!\S)|\s""")
_SPECIAL_TOKENS = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                   "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}
_DATA_FILE = Path(__file__).resolve().parent / "data" / "cl100k_base.tiktoken.gz"


class TokenizerUnavailable(RuntimeError):
    pass


@functools.lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    try:
        raw = gzip.decompress(_DATA_FILE.read_bytes())
    except OSError as exc:
        raise TokenizerUnavailable(f"cannot read {_DATA_FILE.name}: {type(exc).__name__}") from None
    if hashlib.sha256(raw).hexdigest() != _EXPECTED_SHA256:
        raise TokenizerUnavailable(f"{_DATA_FILE.name} does not match the published cl100k_base file")
    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in raw.splitlines() if line)}
    return tiktoken.Encoding(name=TOKENIZER_NAME, pat_str=_PATTERN, mergeable_ranks=ranks,
                             special_tokens=_SPECIAL_TOKENS)


def count_tokens(text: str) -> int:
    """Tokens of ``text``; special-token strings typed by a user are counted as plain text, never as specials."""
    return len(encoding().encode_ordinary(text))
