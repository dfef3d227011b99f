"""The APIExtensionServer's control loops (kube's apiextensions-apiserver pkg/controller): naming and
establishing CRDs, serving them, and the cleanup finalizer that deletes their objects."""
