"""SessionStore adapters: a durable per-turn record of a session."""
