"""Passwords written inside URLs (``scheme://user:password@host``), masked in any text.

Pure text, with no database layer behind it: the database layer masks with it
(``harness.db.mask_secrets``), and the CLI's last resort falls back on it when
that layer cannot even be imported, so the two can never mask differently.
"""

from __future__ import annotations

import re

URL_PASSWORD = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)[^@\s]*@")


def mask_url_passwords(text: str) -> str:
    """``text`` with the password of every ``scheme://user:password@`` in it replaced by ``***``."""
    return URL_PASSWORD.sub(r"\1***@", text)
