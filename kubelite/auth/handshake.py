"""A TLS server context that asks for a client certificate and accepts whichever one is sent, or none.

kube-apiserver's TLS layer requests client certificates without verifying them (Go's
`tls.RequestClientCert`); its x509 authenticator verifies them per request, so a client whose certificate
is from another CA, expired, or not for client authentication completes the handshake and gets a 401
`Status` ("You must be logged in to the server (Unauthorized)" in kubectl) rather than a broken connection.

Python's `ssl` module verifies a sent certificate in the handshake and offers no verify callback, so this
module installs OpenSSL's: `SSL_CTX_set_verify` with a callback that accepts every certificate, on the
context's `SSL_CTX` (the first field after the object header of CPython's `SSLContext`, the libssl being
the one `_ssl` is linked to). The CA list still goes out in the CertificateRequest, as kube's ClientCAs do,
so clients pick a matching certificate. `kubelite.auth.authn.x509` does the verification.
"""

from __future__ import annotations

import _ssl
import ctypes
import ssl

_SSL_VERIFY_PEER = 0x01
_VerifyCallback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p)


@_VerifyCallback
def _accept_any_certificate(preverify_ok: int, store_ctx: int | None) -> int:
    return 1


def _libssl() -> ctypes.CDLL:
    # its symbols resolve through the libssl `_ssl` is linked to; a `_ssl` built into the interpreter has none
    lib = ctypes.CDLL(getattr(_ssl, "__file__", None))
    lib.SSL_CTX_set_verify.argtypes = [ctypes.c_void_p, ctypes.c_int, _VerifyCallback]
    lib.SSL_CTX_set_verify.restype = None
    lib.SSL_CTX_get_verify_mode.argtypes = [ctypes.c_void_p]
    lib.SSL_CTX_get_verify_mode.restype = ctypes.c_int
    lib.SSL_CTX_get_verify_callback.argtypes = [ctypes.c_void_p]
    lib.SSL_CTX_get_verify_callback.restype = ctypes.c_void_p
    return lib


def _ssl_ctx_pointer(context: ssl.SSLContext) -> int:
    pointer = ctypes.c_void_p.from_address(id(context) + object.__basicsize__).value
    if not pointer:
        raise RuntimeError("this Python's SSLContext does not start with its SSL_CTX")
    return pointer


def request_any_client_certificate(context: ssl.SSLContext) -> None:
    """Make a server `context` ask for a client certificate and let the handshake accept any.

    Set `verify_mode` before: setting it afterwards puts Python's own verification back.
    """
    if not context.verify_mode == ssl.CERT_OPTIONAL:
        raise ValueError("the context must have verify_mode CERT_OPTIONAL")
    lib = _libssl()
    pointer = _ssl_ctx_pointer(context)
    # the field is what OpenSSL knows as the context, or nothing here is touched
    if lib.SSL_CTX_get_verify_mode(pointer) != _SSL_VERIFY_PEER:
        raise RuntimeError("this Python's SSLContext does not start with its SSL_CTX")
    lib.SSL_CTX_set_verify(pointer, _SSL_VERIFY_PEER, _accept_any_certificate)
    expected = ctypes.cast(_accept_any_certificate, ctypes.c_void_p).value
    if lib.SSL_CTX_get_verify_callback(pointer) != expected:
        raise RuntimeError("OpenSSL did not take the verify callback")
