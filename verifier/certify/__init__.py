"""Certificates (docs/certificates.md): the answer with what proves each claim, written for
``checker/check_certificate.py``, the standalone checker that judges it without this package."""

from verifier.certify.content import Certificate, certificate_of
from verifier.certify.files import CERTIFICATE_SUFFIXES, save_certificate
from verifier.certify.outside import CHECK, SELF_CHECK_POSITIONS, run_checker, self_checked
from verifier.certify.proofs import CertificateError

__all__ = [
    "CERTIFICATE_SUFFIXES",
    "CHECK",
    "SELF_CHECK_POSITIONS",
    "Certificate",
    "CertificateError",
    "certificate_of",
    "run_checker",
    "save_certificate",
    "self_checked",
]
