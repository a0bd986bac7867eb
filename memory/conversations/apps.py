from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "memory.conversations"
    label = "conversations"
    verbose_name = "Short-term conversation context"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from memory import erasure
        from memory.conversations import checks  # noqa: F401  (registers the tokenizer check)
        from memory.conversations.services import session_erase_patient, session_forget_memory

        erasure.register("conversation_sessions", session_erase_patient)
        erasure.register_forgetter("conversation_tool_results", session_forget_memory)
