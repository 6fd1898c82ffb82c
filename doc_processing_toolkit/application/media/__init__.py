"""The media room: what ``files=`` becomes, and what a model is allowed to receive.

* ``detect``: media types from magic numbers (the extension only as a fallback);
* ``inputs``: paths, bytes, URLs and the documented dicts as ``MediaPart``s;
* ``validation``: parts against the row's ``input_types`` and the profile's wire format
  (``on_unsupported_part``, ``dropped_parts``);
* ``prompt``: the run's user turn;
* ``transformer``: ``MediaTransformer`` (documented at ``agent.media``);
* ``tool_files``: ``run(tool_files=...)`` uploads and ``anthropic_container_id`` reuse;
* ``outputs``: the files code execution wrote, downloaded into
  ``code_execution_output_dir``;
* ``run_media``: one run's code-execution media, as the Agent holds it.
"""
