"""The APIExtensionServer's storage: the CustomResourceDefinition resource, and the custom resources' Store."""
