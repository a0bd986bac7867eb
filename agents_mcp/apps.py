from django.apps import AppConfig


class AgentsMcpConfig(AppConfig):
    name = "agents_mcp"
    label = "agents_mcp"
    verbose_name = "MCP server for agents"
