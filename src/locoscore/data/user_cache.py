"""Reference files locoscore can download (the dataset, the gold errata): where they are
looked for, and how they are fetched into the user cache.

Every such file resolves the same way: an explicit path, else its environment variable, else
the copy `locoscore dataset fetch` saved in the user cache. A download is checked against the
pinned sha256 before it is written, atomically, so the cache never holds a wrong file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import platformdirs

from locoscore._io import write_bytes_atomic
from locoscore.errors import InputError


def user_cache_file(name: str) -> Path:
    return Path(platformdirs.user_cache_dir("locoscore")) / name


def resolve_input_path(explicit: str | Path | None, env_var: str, cached: Path) -> Path | None:
    """Explicit path, else `$env_var`, else the cached copy when it exists, else None."""
    if explicit is not None:
        return Path(explicit)
    env = os.environ.get(env_var)
    if env:
        return Path(env)
    return cached if cached.exists() else None


def download_bytes_verified(
    url: str,
    sha256: str,
    *,
    manual_option: str,
    error: type[InputError] = InputError,
    timeout: float = 60.0,
) -> bytes:
    """The body of `url`, refused unless its sha256 is `sha256`.

    Failures raise `error` (an InputError: one line, exit 2); `manual_option` is the option
    that takes a copy downloaded by hand.
    """
    import httpx

    try:
        response = httpx.get(url, timeout=timeout, follow_redirects=True)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise error(
            f"could not download {url} ({type(exc).__name__}); are you offline? "
            f"Download it by hand and pass {manual_option}"
        ) from None
    digest = hashlib.sha256(response.content).hexdigest()
    if digest != sha256:
        raise error(f"downloaded file has sha256 {digest}, expected {sha256}; not saved", file=url)
    return response.content


def download_verified(
    url: str,
    sha256: str,
    dest: Path,
    *,
    manual_option: str,
    error: type[InputError] = InputError,
    timeout: float = 60.0,
) -> Path:
    """`download_bytes_verified`, written to `dest` atomically (untouched on failure)."""
    data = download_bytes_verified(
        url, sha256, manual_option=manual_option, error=error, timeout=timeout
    )
    write_bytes_atomic(dest, data)
    return dest
