"""What a browser is shown when a request is refused before the portal's templates can answer it (by the server's
worker, by the request-shape middleware, or for a fault): the words for each refusal, and one static page in the
product's look. Plain strings: no template, no session, no database, so nothing on it can fail again."""

from __future__ import annotations

from html import escape

# status -> (title, what to do), for a person at a browser
REFUSAL_PAGES = {
    400: ("This request could not be read", "Your browser sent something we could not read. Go back and try again."),
    413: ("This is too long to send", "What you entered is more than we can take in one form, so nothing was saved. "
                                      "Go back (what you typed is still there), shorten it and send it again."),
    414: ("This address is too long", "The address, or what you typed into a search, is longer than we take. Go "
                                      "back, shorten it and try again."),
    431: ("Your browser sent too much", "Your browser sent more than we take with a request (often very large "
                                        "cookies). Clear this site's cookies, then try again."),
}

_STATIC_PAGE = """<!doctype html>
<html lang="en-GB"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Anamnesis</title><link rel="stylesheet" href="{stylesheet}"></head>
<body><header class="site-header"><div class="wrap header-row"><a class="brand" href="/">Anamnesis</a></div></header>
<main id="main" class="wrap"><h1>{title}</h1>
<p>{message}</p><p><a href="/">Back to the start</a></p></main></body></html>
"""


def static_page(title: str, message_html: str, stylesheet: str) -> str:
    """The page: ``title`` and ``stylesheet`` are escaped here; ``message_html`` is HTML the caller escaped."""
    return _STATIC_PAGE.format(title=escape(title), message=message_html, stylesheet=escape(stylesheet))
