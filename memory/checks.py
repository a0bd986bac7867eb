"""System checks. ``memory.E001``: every built-in memory type in ``memory/catalogue`` passes the same definition
check as an administrator's type (a broken catalogue file stops start-up, not the first write). ``memory.E002``:
search's scoring head (``memory/retrieval_model.json``) was trained with the question adapter that ships beside it
(``memory/retrieval_adapter.npz``): a head fitted on other cosines would misjudge its confidence, so a
half-finished retraining stops start-up."""

from __future__ import annotations

import json

from django.core.checks import Error, register

from memory.types import builtin_catalogue


@register()
def catalogue_check(app_configs=None, **kwargs) -> list[Error]:
    try:
        builtin_catalogue()
    except RuntimeError as exc:
        return [Error(str(exc), id="memory.E001")]
    return []


@register()
def retrieval_model_check(app_configs=None, **kwargs) -> list[Error]:
    from memory.retrieval import adapter
    from memory.retrieval.ranker import MODEL_FILE

    trained_with = json.loads(MODEL_FILE.read_text()).get("question_adapter")
    shipped = adapter.load(adapter.ADAPTER_FILE)
    if trained_with != (shipped.digest() if shipped is not None else None):
        return [Error(f"{MODEL_FILE.name} was trained with question adapter {trained_with}, but "
                      f"{adapter.ADAPTER_FILE.name} is {shipped.digest() if shipped else 'missing'}",
                      hint="retrain both with `make ranker` (manage.py train_ranker --write)", id="memory.E002")]
    return []
