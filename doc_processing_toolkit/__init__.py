"""doc-processing-toolkit."""
