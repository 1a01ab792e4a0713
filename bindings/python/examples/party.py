"""One party of a session, from Python: join with a key and a value, print the result line.

    python3 party.py DEALER_URL SESSION_ID VALUE KEY_FILE DEALER_KEY_HEX [CA_FILE]
"""
import sys

import bp_aggregation as bp


def main(argv):
    url, session, value, key_file, dealer_key = argv[1:6]
    ca_file = argv[6] if len(argv) > 6 else None
    try:
        result = bp.join_and_prove(url, session, int(value), identity=bp.Key.load(key_file),
                                   dealer_key=bytes.fromhex(dealer_key), ca_file=ca_file, timeout_ms=60000)
    except bp.AbortedError as e:
        print(f"abort: {e.message} (blamed {e.blamed})", file=sys.stderr)
        return 2
    except bp.BpError as e:
        print(f"{e.kind}: {e.message}", file=sys.stderr)
        return 1
    bp.verify(result.proof, result.commitments, bits=result.bits, label=result.label)
    print(result.json)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
