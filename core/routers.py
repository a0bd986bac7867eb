class OwnerMigratesRouter:
    """Only the owner connection may create or alter schema; the runtime role owns nothing."""

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == "owner"

    def db_for_read(self, model, **hints):
        return "default"

    def db_for_write(self, model, **hints):
        return "default"
