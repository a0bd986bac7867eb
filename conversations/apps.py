from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "conversations"
    label = "conversations"
    verbose_name = "Short-term conversation context"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from conversations import checks  # noqa: F401  (registers the tokenizer check)
        from conversations.selectors import session_release_scope
        from conversations.services import session_erase_patient, session_forget_memory
        from memory import erasure, sessions

        erasure.register("conversation_sessions", session_erase_patient)
        erasure.register_forgetter("conversation_tool_results", session_forget_memory)
        sessions.register_session_scope(session_release_scope)
