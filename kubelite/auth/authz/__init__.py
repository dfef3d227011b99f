"""Authorizers: each decides whether a UserInfo may perform a request's verb on its resource."""
