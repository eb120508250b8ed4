"""Connection links: layers with weights (Linear, convolutions, embeddings, ...)."""
