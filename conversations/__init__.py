"""Short-term context: conversation sessions with slots, token budgets, summaries and expiry."""
