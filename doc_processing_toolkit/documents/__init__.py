"""Documents: a document is a value with pages (issue 35). The documents MCP server is
``doc_processing_toolkit.documents.mcp_server``."""
