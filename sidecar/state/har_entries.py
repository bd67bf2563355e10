"""One request's CDP Network events turned into a HAR 1.2 entry (http://www.softwareishard.com/
blog/har-12-spec/). Pure functions of the collected events: har.py collects them."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qsl, urlsplit

HTTP_VERSIONS = {"http/1.0": "HTTP/1.0", "http/1.1": "HTTP/1.1", "h2": "HTTP/2", "h3": "HTTP/3",
                 "spdy": "SPDY"}


@dataclass
class Exchange:
    """What the capture saw of one request (one hop of a redirect chain)."""

    seq: int
    request_id: str
    tab: str
    page_ref: str | None
    wall_start: float                 # Unix seconds
    start: float                      # CDP monotonic seconds
    request: dict
    resource_type: str = ""
    request_headers: dict | None = None    # from requestWillBeSentExtraInfo: what went on the wire
    response: dict | None = None
    response_headers: dict | None = None   # from responseReceivedExtraInfo (Set-Cookie included)
    end: float | None = None
    encoded_length: int = -1
    decoded_length: int = 0
    error: str | None = None
    redirect_url: str = ""
    body: dict = field(default_factory=dict)   # content's text / encoding / comment


def iso_time(wall: float) -> str:
    return datetime.datetime.fromtimestamp(wall, datetime.UTC).isoformat(timespec="milliseconds")


def header_list(headers: dict | None) -> list[dict[str, str]]:
    """CDP's {name: value} (several values joined by newlines) as HAR's [{name, value}]."""
    out = []
    for name, value in (headers or {}).items():
        for line in str(value).split("\n"):
            out.append({"name": name, "value": line})
    return out


def _header(headers: dict | None, wanted: str) -> str | None:
    for name, value in (headers or {}).items():
        if name.lower() == wanted:
            return str(value)
    return None


def request_cookies(headers: dict | None) -> list[dict[str, str]]:
    cookies = []
    for part in (_header(headers, "cookie") or "").split(";"):
        name, sep, value = part.strip().partition("=")
        if sep and name:
            cookies.append({"name": name, "value": value})
    return cookies


def response_cookies(headers: dict | None) -> list[dict[str, object]]:
    cookies: list[dict[str, object]] = []
    for line in (_header(headers, "set-cookie") or "").split("\n"):
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(line)
        except CookieError:
            continue
        for morsel in jar.values():
            cookie: dict[str, object] = {"name": morsel.key, "value": morsel.value}
            for attribute, key in (("path", "path"), ("domain", "domain"), ("expires", "expires")):
                if morsel[attribute]:
                    cookie[key] = morsel[attribute]
            cookie["httpOnly"] = bool(morsel["httponly"])
            cookie["secure"] = bool(morsel["secure"])
            cookies.append(cookie)
    return cookies


def _timings(exchange: Exchange) -> tuple[float, dict[str, float]]:
    """(total ms, HAR timings) from the response's ResourceTiming, whole time as wait without."""
    end = exchange.end if exchange.end is not None else exchange.start
    total = max(0.0, (end - exchange.start) * 1000)
    timing = (exchange.response or {}).get("timing")
    if not timing:
        return total, {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": total,
                       "receive": 0}

    def span(start: str, stop: str) -> float:
        return timing[stop] - timing[start] if timing.get(start, -1) >= 0 else -1

    queued = max(0.0, (timing["requestTime"] - exchange.start) * 1000)
    first = next((timing[k] for k in ("dnsStart", "connectStart", "sendStart") if timing.get(k, -1) >= 0), 0)
    out = {"blocked": queued + first, "dns": span("dnsStart", "dnsEnd"),
           "connect": span("connectStart", "connectEnd"), "ssl": span("sslStart", "sslEnd"),
           "send": max(0.0, timing.get("sendEnd", 0) - timing.get("sendStart", 0)),
           "wait": max(0.0, timing.get("receiveHeadersEnd", 0) - timing.get("sendEnd", 0)),
           "receive": max(0.0, (end - timing["requestTime"]) * 1000 - timing.get("receiveHeadersEnd", 0))}
    total = sum(value for name, value in out.items() if name != "ssl" and value > 0)
    return total, {name: round(value, 3) for name, value in out.items()}


def _request(exchange: Exchange, http_version: str) -> dict:
    request = exchange.request
    headers = exchange.request_headers or request.get("headers")
    out: dict = {"method": request.get("method", "GET"), "url": request.get("url", ""),
                 "httpVersion": http_version, "cookies": request_cookies(headers),
                 "headers": header_list(headers),
                 "queryString": [{"name": n, "value": v}
                                 for n, v in parse_qsl(urlsplit(request.get("url", "")).query,
                                                       keep_blank_values=True)],
                 "headersSize": -1, "bodySize": 0}
    if request.get("hasPostData") or request.get("postData") is not None:
        text = request.get("postData")
        if text is None:
            text = "".join(entry.get("bytes", "") for entry in request.get("postDataEntries", []))
        out["postData"] = {"mimeType": _header(headers, "content-type") or "", "text": text}
        out["bodySize"] = len(text.encode())
    return out


def _response(exchange: Exchange, http_version: str) -> dict:
    response = exchange.response
    if response is None:
        return {"status": 0, "statusText": "", "httpVersion": "", "cookies": [], "headers": [],
                "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "",
                "headersSize": -1, "bodySize": -1,
                "_error": exchange.error or "no response before the capture stopped"}
    headers = exchange.response_headers or response.get("headers")
    content: dict = {"size": exchange.decoded_length, "mimeType": response.get("mimeType") or "x-unknown",
                     **exchange.body}
    out: dict = {"status": int(response.get("status", 0)), "statusText": response.get("statusText", ""),
                 "httpVersion": http_version, "cookies": response_cookies(headers),
                 "headers": header_list(headers), "content": content,
                 "redirectURL": exchange.redirect_url or _header(headers, "location") or "",
                 "headersSize": -1, "bodySize": exchange.encoded_length}
    if exchange.error:
        out["_error"] = exchange.error
    return out


def har_entry(exchange: Exchange) -> dict:
    response = exchange.response or {}
    http_version = HTTP_VERSIONS.get(str(response.get("protocol", "")).lower(),
                                     str(response.get("protocol", "")).upper() or "HTTP/1.1")
    total, timings = _timings(exchange)
    entry: dict = {"startedDateTime": iso_time(exchange.wall_start), "time": round(total, 3),
                   "request": _request(exchange, http_version),
                   "response": _response(exchange, http_version),
                   "cache": {}, "timings": timings,
                   "_requestId": exchange.request_id, "_seq": exchange.seq, "_tab": exchange.tab,
                   "_resourceType": exchange.resource_type}
    if exchange.page_ref:
        entry["pageref"] = exchange.page_ref
    if response.get("remoteIPAddress"):
        entry["serverIPAddress"] = response["remoteIPAddress"].strip("[]")
    if response.get("connectionId"):
        entry["connection"] = str(response["connectionId"])
    return entry
