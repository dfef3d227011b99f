"""certificates.k8s.io: CertificateSigningRequests."""
