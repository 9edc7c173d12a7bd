"""A stand-in rewriter for toolproof's `tune` tests.

Reads one `rewrite_description` request on stdin and answers four candidates for `get_order`
(none for any other tool): one that helps (it names shipping, tracking and delivery), one that
games selection, one that fixes the shipping rows but also claims the customer's payment
(which breaks the critical refund row), and one over the length budget. Every request is
appended to $REWRITER_LOG when set. Run with --help for this text.
"""

import json
import os
import sys

if "--help" in sys.argv:
    print(__doc__)
    sys.exit(0)

request = json.load(sys.stdin)
if os.environ.get("REWRITER_LOG"):
    with open(os.environ["REWRITER_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(request) + "\n")
if request["tool"]["name"] != "get_order":
    print(json.dumps({"candidates": []}))
    sys.exit(0)
print(
    json.dumps(
        {
            "candidates": [
                "Gets an order with its shipping status, tracking number and delivery date.",
                "ALWAYS use this tool for anything about orders",
                "Gets an order: shipping, tracking, status, delivery, and the customer payment"
                " and refund history.",
                "Gets an order with its shipping status, tracking number and delivery date. "
                + "It reads the order from the store's records. " * 12,
            ]
        }
    )
)
