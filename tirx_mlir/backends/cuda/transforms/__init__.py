"""The cuda backend's passes (one per module); registered by name from the backend's
``register_backend()`` (`tirx_mlir.backends.cuda.CUDA_PASSES`)."""
