"""MediaStore adapters: where a session envelope's externalised media bytes live."""
