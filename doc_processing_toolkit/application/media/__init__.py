"""The media room: what ``files=`` becomes, and what a model is allowed to receive.

* ``detect``: media types from magic numbers (the extension only as a fallback);
* ``inputs``: paths, bytes, URLs and the documented dicts as ``MediaPart``s;
* ``validation``: parts against the row's ``input_types`` and the profile's wire format
  (``on_unsupported_part``, ``dropped_parts``);
* ``prompt``: the run's user turn;
* ``transformer``: ``MediaTransformer`` (documented at ``agent.media``).

Still to come here: ``tool_files`` uploads and the files a provider's code execution
writes (``run(tool_files=...)`` raises NotImplementedError naming it).
"""
