"""The hooks room (lands with the hooks issue): HookRunner, RunHandle,
ConfirmAfterNToolCalls and RequestStartEmitter on top of the run loop's event channel.

Nothing is built here yet: ``Agent(hooks=...)`` raises NotImplementedError naming it.
"""
