"""The documents room: what a document becomes before it is sent, and the document runs.

* ``source``: `DocumentSource`, a document as the user names it (the public ``Document``);
* ``planner``: `DocumentPlanner`, reading, page selections, cuts and limit checks before
  any request (one per Agent, handed the PDF adapter);
* ``conversion``: ``on_unsupported_part="convert"``: Office/HTML to Markdown, a PDF's text
  layer and OCR for a model that cannot take the file;
* ``run_document``: the map-reduce of ``Agent.run_document``; ``result``: `DocumentResult`;
* ``estimate``: ``Agent.estimate``; ``methods``: the Agent's document methods (a mixin).

The pure rules (page selections, page maps, limits, merge, estimate arithmetic) are in
``domain/documents``; the byte work is behind the ports ``PdfPages``, ``DocumentConverter``
and ``OcrEngine`` (adapters in ``adapters/documents``).
"""
