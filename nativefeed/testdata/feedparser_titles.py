# Reads, from stdin, lines "path<TAB>content-type" and writes one JSON object
# per line: the feed title and the first entry's title as python3-feedparser
# reads the file served with that Content-Type. Used by corpus_test.go.
import json
import sys

import feedparser

for line in sys.stdin:
    path, ctype = line.rstrip("\n").split("\t")
    with open(path, "rb") as f:
        data = f.read()
    headers = {"content-type": ctype} if ctype else {}
    try:
        d = feedparser.parse(data, response_headers=headers)
        out = {
            "feed": d.feed.get("title", ""),
            "entry": d.entries[0].get("title", "") if d.entries else "",
            "encoding": d.get("encoding", ""),
        }
    except Exception as e:  # a crash is an answer too: no titles
        out = {"feed": "", "entry": "", "encoding": "", "error": str(e)}
    print(json.dumps(out), flush=True)
