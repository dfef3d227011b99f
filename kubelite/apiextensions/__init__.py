"""The APIExtensionServer: CustomResourceDefinitions and the custom resources they define (kube's
apiextensions-apiserver).

A CRD is stored like any built-in object; once its names are accepted and it is established, each served
version of its resource is installed through the same generic Store, watch cache, route installer, patch and
apply machinery as the built-in kinds, with a strategy driven by the CRD's structural schema. Deleting the CRD
uninstalls its routes and, through the `customresourcecleanup.apiextensions.k8s.io` finalizer, its objects.
"""
