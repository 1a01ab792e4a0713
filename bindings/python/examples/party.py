"""One party of a session, from Python: join with a key and a value, print the result line.

    python3 party.py DEALER_URL SESSION_ID VALUE KEY_FILE DEALER_KEY_HEX [CA_FILE]

VALUE is one value (a range session), or GADGET=V1,V2,... (a gadget session: the gadget
this party proves, "shuffle:2=3,9,9,3", and its values).
"""
import sys

import bp_aggregation as bp


def main(argv):
    url, session, value, key_file, dealer_key = argv[1:6]
    ca_file = argv[6] if len(argv) > 6 else None
    try:
        options = dict(identity=bp.Key.load(key_file), dealer_key=bytes.fromhex(dealer_key), ca_file=ca_file,
                       timeout_ms=60000)
        if "=" in value:
            gadget, values = value.split("=", 1)
            result = bp.join_gadget(url, session, gadget, [int(v) for v in values.split(",")], **options)
        else:
            result = bp.join_and_prove(url, session, int(value), **options)
    except bp.AbortedError as e:
        print(e.message, file=sys.stderr)  # one line: the kind, the reason, blamed=[...]
        return 2
    except bp.BpError as e:
        print(e.message, file=sys.stderr)
        return 1
    if result.gadgets is None:
        bp.verify(result.proof, result.commitments, bits=result.bits, label=result.label)
    else:
        bp.r1cs_verify(result.gadgets, result.commitments, result.proof, label=result.label)
    print(result.json)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
