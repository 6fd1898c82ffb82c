"""The media room (lands with the media issue): MediaTransformer, input validation,
uploads through a FileUploader, and the files a provider's code execution writes.

Nothing is built here yet: ``run(files=...)`` raises NotImplementedError naming it.
"""
