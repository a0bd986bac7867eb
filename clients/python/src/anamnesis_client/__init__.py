"""Python client for the Anamnesis agent API."""

from anamnesis_client import errors, models
from anamnesis_client.auth import ClientCredentials, StaticToken, TokenProvider
from anamnesis_client.client import AnamnesisClient, AsyncAnamnesisClient, RetryPolicy
from anamnesis_client.errors import AnamnesisError, TransportError

__all__ = ["AnamnesisClient", "AsyncAnamnesisClient", "RetryPolicy", "StaticToken", "ClientCredentials",
           "TokenProvider", "AnamnesisError", "TransportError", "errors", "models"]
__version__ = "0.1.0"
