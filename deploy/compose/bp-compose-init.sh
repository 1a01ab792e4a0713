#!/bin/sh
# One-shot set-up for the compose demo: Ed25519 keys for the operator, the dealer and the
# parties, (BP_TLS=1) a throwaway CA with a certificate for the host "dealer", and
# (BP_RECORDS_HOST=NAME, the scale-out demo) a random password for the shared record's
# role bp, in records.password for the database and in libpq's password file
# records.pgpass for the dealers.
set -eu
keys=${BP_KEYS_DIR:-/keys}
cd "$keys"
for name in operator dealer party0 party1 party2 party3; do
  [ -f "$name.key" ] || bp-party keygen --out "$name.key" >/dev/null
done
if [ "${BP_TLS:-0}" = 1 ] && [ ! -f dealer.crt ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=bp demo CA" \
    -keyout ca.key -out ca.crt 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=dealer" -keyout dealer.tls.key -out dealer.csr 2>/dev/null
  printf 'subjectAltName=DNS:dealer,DNS:localhost,IP:127.0.0.1\n' >san.ext
  openssl x509 -req -in dealer.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
    -extfile san.ext -out dealer.crt 2>/dev/null
  chmod 600 dealer.tls.key
  rm -f ca.key dealer.csr san.ext ca.srl
fi
if [ -n "${BP_RECORDS_HOST:-}" ] && [ ! -f records.password ]; then
  (umask 077 && od -An -N24 -tx1 /dev/urandom | tr -d ' \n' >records.password)
  (umask 077 && printf '%s:5432:bp:bp:%s\n' "$BP_RECORDS_HOST" "$(cat records.password)" >records.pgpass)
fi
echo "keys ready: $(cat operator.key.pub) (operator), $(cat dealer.key.pub) (dealer)"
