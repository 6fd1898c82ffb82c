"""The session room (lands with the sessions issue): AgentSession, envelope save/restore,
truncation and rebind onto another provider.

Nothing is built here yet: ``Agent.session()`` raises NotImplementedError naming it.
"""
