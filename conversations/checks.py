"""System check ``conversations.E001``: the context builder's tokenizer must load (offline, verified file)."""

from __future__ import annotations

from django.core.checks import Error, register


@register()
def check_tokenizer(app_configs=None, **kwargs):
    from conversations.tokens import TokenizerUnavailable, encoding

    try:
        encoding()
    except TokenizerUnavailable as exc:
        return [Error(f"the conversation tokenizer cannot load: {exc}", id="conversations.E001",
                      hint="conversations/data/cl100k_base.tiktoken.gz must be the published file")]
    return []
