"""The MCP server over stdio, for a local agent: ``ANAMNESIS_TOKEN=<access token> manage.py mcp_stdio``.

The token is validated exactly as over HTTP (and again on every tool call, so an expired token stops working);
every tool call runs as that token's identity. Logs go to stderr: stdout carries the protocol."""

from __future__ import annotations

import logging
import os
import sys

import anyio
from django.core.management.base import BaseCommand, CommandError

from core.authentication import identity_from_token
from core.errors import ApiError


class Command(BaseCommand):
    help = "Serve the MCP tools over stdio with the access token in ANAMNESIS_TOKEN"

    def handle(self, *args, **options):
        token = os.environ.get("ANAMNESIS_TOKEN", "").strip()
        if not token:
            raise CommandError("set ANAMNESIS_TOKEN to an access token")
        try:
            identity_from_token(token)
        except ApiError as exc:
            raise CommandError(f"the access token was refused: {exc.code}") from None
        logging.getLogger().handlers = [logging.StreamHandler(sys.stderr)]
        from mcp.server.stdio import stdio_server

        from agents_mcp.server import build_server

        server = build_server(token_source=lambda: token)

        async def main():
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(main)
