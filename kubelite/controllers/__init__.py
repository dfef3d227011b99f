"""In-process control loops that kube-apiserver and kube-controller-manager run for the API to behave as
users expect: system namespaces and the `kubernetes` Service, each namespace's default ServiceAccount, and
namespace deletion."""
