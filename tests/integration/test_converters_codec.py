"""The protobuf, ungrpc, jwt_header_query, jwt_payload_query, jwt_verify and aes_gcm_dec
converters as a client sees them: each expression is rendered by an `http-request return
... lf-string "%[...]"` rule and compared with what HAProxy 2.6 prints; a gRPC body read
under `option http-buffer-request`, and a bearer token checked by a deny rule.

Owns: the outputs of those converters on constant inputs (protocol buffers and gRPC
frames, tokens signed here with HMAC, RSA and ECDSA keys made by the `cryptography`
module, AES-GCM ciphertexts made by it too) and their config errors. Every case runs
against Debian's haproxy too (reference mode) except those marked `ours`: 2.6.12 answers
"Unknown certificate" (-5) for a key given as a certificate file although its manual asks
for one, and fails jwt_*_query without a path although its manual says it returns the
decoded part; we do what the manual says.
"""

import base64
import datetime
import json
import hashlib
import hmac

import pytest

import httpc
from conftest import IS_REF, Proxy, free_port, run_haproxy

# python3-cryptography is installed by scripts/install-deps.sh (make test)
from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402

OURS = pytest.mark.ours
HASHES = {"256": hashes.SHA256(), "384": hashes.SHA384(), "512": hashes.SHA512()}


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def b64(b):
    return base64.b64encode(b).decode()


def _write_key(d, name, key):
    subj = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    start = datetime.datetime(2024, 1, 1)
    crt = (x509.CertificateBuilder().subject_name(subj).issuer_name(subj)
           .public_key(key.public_key()).serial_number(1).not_valid_before(start)
           .not_valid_after(start + datetime.timedelta(days=3650))
           .sign(key, hashes.SHA256()))
    (d / (name + ".crt")).write_bytes(crt.public_bytes(serialization.Encoding.PEM))
    (d / (name + ".pub")).write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))


class Keys:
    """Keys and tokens made once for the module."""

    def __init__(self, d):
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = {"256": ec.generate_private_key(ec.SECP256R1()),
                   "384": ec.generate_private_key(ec.SECP384R1()),
                   "512": ec.generate_private_key(ec.SECP521R1())}
        _write_key(d, "rsa", self.rsa)
        for bits, k in self.ec.items():
            _write_key(d, "ec" + bits, k)
        self.hdr = b64u(b'{"alg":"HS256","typ":"JWT"}')
        self.pay = b64u(json.dumps({"sub": "1234", "name": "John", "iat": 1516239022,
                                    "admin": True}, separators=(",", ":")).encode())

    def token(self, alg, hdr=None, pay=None):
        si = ((hdr or self.hdr) + "." + (pay or self.pay)).encode()
        bits = alg[2:]
        if alg.startswith("HS"):
            sig = hmac.new(b"secret", si, getattr(hashlib, "sha" + bits)).digest()
        elif alg.startswith("RS"):
            sig = self.rsa.sign(si, padding.PKCS1v15(), HASHES[bits])
        else:
            k = self.ec[bits]
            r, s = utils.decode_dss_signature(k.sign(si, ec.ECDSA(HASHES[bits])))
            n = (k.curve.key_size + 7) // 8
            sig = r.to_bytes(n, "big") + s.to_bytes(n, "big")
        return si.decode() + "." + b64u(sig)


def _aes_cases():
    nonce = bytes(range(12))
    pt = b"hello world, this is secret"
    out = []
    for bits in (128, 192, 256):
        key = bytes(range(bits // 8))
        ct = AESGCM(key).encrypt(nonce, pt, None)
        c, tag = ct[:-16].hex(), ct[-16:]
        args = (b64(nonce), b64(key))
        out.append(("%%[bin(%s),aes_gcm_dec(%d,%s,%s,%s)]" % ((c, bits) + args + (b64(tag),)),
                    pt))
        # a tag that does not match, and a key of another size
        out.append(("%%[bin(%s),aes_gcm_dec(%d,%s,%s,%s)]"
                    % ((c, bits) + args + (b64(tag[:-1] + b"x"),)), b""))
        out.append(("%%[bin(%s),aes_gcm_dec(%d,%s,%s,%s)]"
                    % ((c, 384 - bits if bits != 192 else 128) + args + (b64(tag),)), b""))
    key = bytes(range(16))
    ct = AESGCM(key).encrypt(bytes(16), pt, None)
    c, tag = ct[:-16].hex(), ct[-16:]
    sv = ("%%[str(%s),set-var(txn.n),bytes(0,0)]%%[str(%s),set-var(txn.k),bytes(0,0)]"
          "%%[str(%s),set-var(txn.t),bytes(0,0)]" % (b64(bytes(16)), b64(key), b64(tag)))
    out += [
        # a 16-byte nonce, arguments in variables, a tag cut to 12 bytes
        (sv + "%%[bin(%s),aes_gcm_dec(128,txn.n,txn.k,txn.t)]" % c, pt),
        (sv + "%%[bin(%s),aes_gcm_dec(128,txn.n,txn.k,%s)]" % (c, b64(tag[:12])), pt),
        (sv + "%%[bin(%s),aes_gcm_dec(128,txn.n,txn.k,txn.t),hex]" % c,
         pt.hex().upper().encode()),
        (sv + "%%[bin(%s),aes_gcm_dec(128,txn.none,txn.k,txn.t)]" % c, b""),
        (sv + "%%[bin(%s),aes_gcm_dec(128,txn.n,txn.k,%s)]" % (c, b64(tag + b"x")), b""),
        (sv + "%[str(),aes_gcm_dec(128,txn.n,txn.k,txn.t),length]", b""),
    ]
    return out


PB = [
    # varint types keep 64 bits; zigzag for sint*; fixed and floating types
    ("%[bin(089601),protobuf(1,int32)]", b"150"),
    ("%[bin(089601),protobuf(1),hex]", b"9601"),
    ("%[bin(0896011203616263),protobuf(2)]", b"abc"),
    ("%[bin(08ffffffffffffffffff01),protobuf(1,uint32)]", b"-1"),
    ("%[bin(088180808010),protobuf(1,int32)]", b"4294967297"),
    ("%[bin(0803),protobuf(1,sint32)]", b"-2"),
    ("%[bin(08ffffffffffffffffff01),protobuf(1,sint64)]", b"-9223372036854775808"),
    ("%[bin(0802),protobuf(1,bool)]", b"2"),
    ("%[bin(0802),protobuf(1,enum)]", b"2"),
    ("%[bin(0d01000080),protobuf(1,fixed32)]", b"2147483649"),
    ("%[bin(0d01000080),protobuf(1,sfixed32)]", b"-2147483647"),
    ("%[bin(0d0000c03f),protobuf(1),hex]", b"0000C03F"),
    ("%[bin(0d0000c03f),protobuf(1,float)]", b"1"),
    ("%[bin(0d0000c0bf),protobuf(1,float)]", b"4294967295"),
    ("%[bin(0d0000c07f),protobuf(1,float)]", b"0"),
    ("%[bin(090100000000000080),protobuf(1,fixed64)]", b"-9223372036854775807"),
    ("%[bin(090100000000000080),protobuf(1,sfixed64)]", b"-9223372036854775807"),
    ("%[bin(09000000000000f83f),protobuf(1,double)]", b"1"),
    ("%[bin(0900000000000030c3),protobuf(1,double)]", b"-4503599627370496"),
    ("%[bin(0900000000000ae043),protobuf(1,double)]", b"-9200854038717923328"),
    ("%[bin(09000000000000f87f),protobuf(1,double)]", b"-9223372036854775808"),
    ("%[bin(1001),protobuf(2,int32),hex]", b"0000000000000001"),
    # walking, first match, wire type checks, invalid input
    ("%[bin(0a050896011801),protobuf(1.1,int32)]", b"150"),
    ("%[bin(0a050896011801),protobuf(1.3,int32)]", b"1"),
    ("%[bin(0a050896011801),protobuf(1),hex]", b"0896011801"),
    ("%[bin(08011a03080202),protobuf(3.1,int32)]", b"2"),
    ("%[bin(08010802),protobuf(1,int32)]", b"1"),
    ("%[bin(0001),protobuf(0,int32)]", b"1"),
    ("%[bin(0896011203616263),protobuf(3)]", b""),
    ("%[bin(0896011203616263),protobuf(2,int32)]", b""),
    ("%[bin(0896011203616263),protobuf(1.1,int32)]", b""),
    ("%[bin(0880),protobuf(1,int32)]", b""),
    ("%[bin(0880808080808080808080800100),protobuf(1,int32)]", b""),
    ("%[bin(088080808080808080800100),protobuf(1,int32)]", b"-9223372036854775808"),
    ("%[bin(1205616263),protobuf(2)]", b""),
    ("%[bin(0b0c0801),protobuf(1,int32)]", b""),
    ("%[bin(0f1001),protobuf(2,int32)]", b""),
    ("%[bin(0d0102),protobuf(1,fixed32)]", b""),
    # 2.6's reading: a missing varint is 0, a value runs to the end of the whole message
    ("%[bin(08),protobuf(1,int32)]", b"0"),
    ("%[bin(08),protobuf(1),length]", b"0"),
    ("%[bin(0a01089601),protobuf(1.1,int32)]", b"150"),
    ("%[bin(0a0212020805),protobuf(1.2.1,int32)]", b"5"),
    ("%[bin(0a02120108),protobuf(1.2),hex]", b"08"),
    ("%[bin(0a02100108021801),protobuf(1.1,int32)]", b""),
    # gRPC frames
    # 2.6's walk: a repeated submessage is searched in each occurrence (the path starts
    # again once the submessage entered last is used up), the first match wins
    ("%[bin(0a0218010a021005),protobuf(1.2,int64)]", b"5"),
    ("%[bin(0a0218010a0218020a0218030a021009),protobuf(1.2,int64)]", b"9"),
    ("%[bin(0a0210010a0210020a021003),protobuf(1.2),hex]", b"01"),
    ("%[bin(0a041a0010070a021009),protobuf(1.2,int64)]", b"9"),
    ("%[bin(0a04120210010a04120218050a0412021807),protobuf(1.2.3,int64)]", b"5"),
    # a scalar matching a number before the last is read on as the next key
    ("%[bin(081005),protobuf(1.2),hex]", b"05"),
    ("%[bin(0d10050000),protobuf(1.2,int64)]", b"5"),
    # a skipped length-delimited field inside a submessage sends the path back to its start
    ("%[bin(0a041a001007),protobuf(1.2),hex]", b""),
    ("%[bin(0a0a1202100112021805),protobuf(1.2.3,int64)]", b""),
    ("%[bin(0a0818010a0410051809),protobuf(1.2,int64)]", b""),
    ("%[bin(0000000003089601),ungrpc(1,int32)]", b"150"),
    ("%[bin(0100000003089601),ungrpc(1,int32)]", b"150"),
    ("%[bin(0000000003089601),ungrpc(1),hex]", b"9601"),
    ("%[bin(00000000021001000000000208020000000002100a),ungrpc(1,int32)]", b"2"),
    ("%[bin(00000000021001000000000208020000000002100a),ungrpc(2,int32)]", b"1"),
    ("%[bin(0000000004089601),ungrpc(1,int32)]", b""),
    ("%[bin(0000000002089601),ungrpc(1,int32)]", b""),
    ("%[bin(0000000001089601),ungrpc(1,int32)]", b"0"),
    ("%[bin(00000000000801),ungrpc(1,int32)]", b""),
    ("%[bin(0000000003109601ff0000000002080a),ungrpc(1,int32)]", b""),
    ("%[bin(00000000090a0708011203616263),ungrpc(1.2)]", b"abc"),
    ("%[bin(00000000090a0708011203616263),ungrpc(1),protobuf(2)]", b"abc"),
    ("%[bin(089601),ungrpc(1,int32)]", b""),
    ("%[bin(00000000080a0218010a021005),ungrpc(1.2,int64)]", b"5"),
    # a message whose walk fails: the next header is read where it stopped (here the next
    # message after a field of another type; inside the first one after a cut-short field)
    ("%[bin(00000000020a0000000000020805),ungrpc(1,int64)]", b"5"),
    ("%[bin(00000000020d0100000000020805),ungrpc(1,int64)]", b""),
    ("%[bin(0000000005120561626300000000020805),ungrpc(1,int64)]", b""),
    ("%[bin(00000000021a0500000000020805),ungrpc(1,int64)]", b"5"),
]


def _jwt_cases(k, d):
    hs = k.token("HS256")
    v = "%%[str(%s),set-var(txn.%s),bytes(0,0)]"
    out = [
        ("%%[str(%s),jwt_header_query(\\$.alg)]" % hs, b"HS256"),
        ("%%[str(%s),jwt_header_query(\\$.typ)]" % hs, b"JWT"),
        ("%%[str(%s),jwt_payload_query(\\$.iat,int),add(1)]" % hs, b"1516239023"),
        ("%%[str(%s),jwt_payload_query(\\$.iat)]" % hs, b"1.51624e+09"),
        ("%%[str(%s),jwt_payload_query(\\$.admin)]" % hs, b"1"),
        ("%%[str(%s),jwt_payload_query(\\$.name)]" % hs, b"John"),
        ("%%[str(%s),jwt_payload_query(\\$.nope)]" % hs, b""),
        ("%[str(eyJhIjoxfQ),jwt_header_query(\\$.a)]", b"1"),
        ("%[str(eyJhIjoxfQ),jwt_payload_query(\\$.a)]", b""),
        ("%[str(eyJhIjoxfQ==.eyJhIjoyfQ.!),jwt_payload_query(\\$.a)]", b"2"),
        pytest.param("%%[str(%s),jwt_header_query]" % hs, b'{"alg":"HS256","typ":"JWT"}',
                     marks=OURS),
        pytest.param("%%[str(%s),jwt_payload_query,length]" % hs, b"58", marks=OURS),
        # HMAC
        ("%%[str(%s),jwt_verify(HS256,secret)]" % hs, b"1"),
        ("%%[str(%s),jwt_verify(HS256,secreT)]" % hs, b"0"),
        ("%%[str(%s),jwt_verify(HS384,secret)]" % k.token("HS384"), b"1"),
        ("%%[str(%s),jwt_verify(HS512,secret)]" % k.token("HS512"), b"1"),
        ("%%[str(%s),jwt_verify(HS512,secret)]" % hs, b"0"),
        ("%%[str(%s),jwt_verify(HS256,secret),hex]" % hs, b"0000000000000001"),
        # the header's "alg" is not read
        ("%%[str(%s),jwt_verify(HS256,secret)]"
         % k.token("HS256", hdr=b64u(b'{"alg":"HS512"}')), b"1"),
        # invalid tokens, "none"
        ("%[str(a.b),jwt_verify(HS256,secret)]", b"-3"),
        ("%[str(a.b.c.d),jwt_verify(HS256,secret)]", b"-3"),
        ("%[str(a.b.),jwt_verify(HS256,secret)]", b"-3"),
        ("%[str(YWJj.ZGVm.AAAAA),jwt_verify(HS256,secret)]", b"-3"),
        ("%[str(YWJj.ZGVm.A+/A),jwt_verify(HS256,secret)]", b"-3"),
        ("%[str(YWJj.ZGVm.AA==),jwt_verify(HS256,secret)]", b"0"),
        ("%[str(a.b.),jwt_verify(none,x)]", b"1"),
        # a header and payload without signature pass "none" only
        ("%[str(a.b),jwt_verify(none,x)]", b"1"),
        ("%[str(a.),jwt_verify(none,x)]", b"1"),
        ("%[str(.),jwt_verify(none,x)]", b"1"),
        ("%[str(a.b),jwt_verify(RS256,x)]", b"-3"),
        ("%[str(a),jwt_verify(none,x)]", b"-3"),
        # 2.6's base64url: '=' is a digit (63) anywhere, 4n+1 characters are invalid
        ("%%[str(%s=),jwt_verify(HS256,secret)]" % hs, b"0"),
        ("%%[str(%s==),jwt_verify(HS256,secret)]" % hs, b"-3"),
        ("%%[str(%sA=),jwt_verify(HS256,secret)]" % hs, b"-3"),
        ("%%[str(%s===),jwt_verify(HS256,secret)]" % hs, b"0"),
        ("%%[str(%s=),jwt_verify(HS256,secret)]" % hs[:-1], b"0"),
        ("%%[str(%s=),jwt_verify(HS512,secret)]" % k.token("HS512"), b"0"),
        ("%%[str(%s==),jwt_verify(HS384,secret)]" % k.token("HS384"), b"0"),
        ("%%[str(%s=),jwt_verify(HS384,secret)]" % k.token("HS384"), b"-3"),
        ("%[str(YWJj.ZGVm.A=),jwt_verify(HS256,secret)]", b"0"),
        ("%[str(YWJj.ZGVm.==),jwt_verify(HS256,secret)]", b"0"),
        ("%[str(YWJj.ZGVm.=),jwt_verify(HS256,secret)]", b"-3"),
        ("%[str(YWJj.ZGVm.AAAA=),jwt_verify(HS256,secret)]", b"-3"),
        ("%[str(eyJhIjoxMjN9=.e30.x),jwt_header_query(\\$.a)]", b""),
        ("%[str(e30.eyJhIjoxMjN9=.x),jwt_payload_query(\\$.a)]", b""),
        ("%[str(eyJhIjox=jN9.e30.x),jwt_header_query(\\$.a)]", b"1"),
        ("%%[str(%s),jwt_verify(none,x)]" % hs, b"0"),
        # algorithm and key in variables
        ((v % ("XX", "a")) + "%%[str(%s),jwt_verify(txn.a,secret)]" % hs, b"-1"),
        ((v % ("PS256", "a")) + "%%[str(%s),jwt_verify(txn.a,secret)]" % hs, b"-2"),
        ((v % ("HS256", "a")) + "%%[str(%s),jwt_verify(txn.a,secret)]" % hs, b"1"),
        ((v % ("secret", "k")) + "%%[str(%s),jwt_verify(HS256,txn.k)]" % hs, b"1"),
        ("%%[str(%s),jwt_verify(HS256,txn.none)]" % hs, b""),
        ((v % ("RS256", "a")) + "%%[str(%s),jwt_verify(txn.a,secret)]" % hs, b"-5"),
    ]
    for bits in ("256", "384", "512"):
        rs, es = k.token("RS" + bits), k.token("ES" + bits)
        rpub, epub = d / "rsa.pub", d / ("ec%s.pub" % bits)
        out += [
            ("%%[str(%s),jwt_verify(RS%s,%s)]" % (rs, bits, rpub), b"1"),
            ("%%[str(%s),jwt_verify(ES%s,%s)]" % (es, bits, epub), b"1"),
            ("%%[str(%s),jwt_verify(ES%s,%s)]" % (es, bits, rpub), b"0"),
            ("%%[str(%s),jwt_verify(RS%s,%s)]" % (rs, bits, epub), b"0"),
            pytest.param("%%[str(%s),jwt_verify(RS%s,%s/rsa.crt)]" % (rs, bits, d), b"1",
                         marks=OURS),
            pytest.param("%%[str(%s),jwt_verify(ES%s,%s/ec%s.crt)]" % (es, bits, d, bits),
                         b"1", marks=OURS),
        ]
    es = k.token("ES256")
    h, p, s = es.split(".")
    out += [
        ("%%[str(%s.%s.%s),jwt_verify(ES256,%s/ec256.pub)]" % (h, p, s[:-3], d), b"0"),
        ("%%[str(%s.%s.%sAAAA),jwt_verify(ES256,%s/ec256.pub)]" % (h, p, s, d), b"-3"),
        ("%%[str(%s.%s.AA),jwt_verify(ES256,%s/ec256.pub)]" % (h, p, d), b"-3"),
        ("%%[str(%s.%s.),jwt_verify(ES256,%s/ec256.pub)]" % (h, p, d), b"-3"),
        ("%%[str(%s),jwt_verify(ES256,%s/ec384.pub)]" % (es, d), b"0"),
        ("%%[str(%s),jwt_verify(RS256,%s/nonexistent.pem)]" % (k.token("RS256"), d), b"-5"),
        ((v % (str(d / "rsa.pub"), "k")) + "%%[str(%s),jwt_verify(RS256,txn.k)]"
         % k.token("RS256"), b"1"),
        ((v % (str(d / "other.pub"), "k")) + "%%[str(%s),jwt_verify(RS256,txn.k)]"
         % k.token("RS256"), b"-5"),
    ]
    return out


def _case_expr(c):
    return c.values[0] if hasattr(c, "values") else c[0]


def _expected(c):
    return c.values[1] if hasattr(c, "values") else c[1]


@pytest.fixture(scope="module")
def codec_env(tmp_path_factory):
    d = tmp_path_factory.mktemp("codec")
    k = Keys(d)
    cases = PB + _jwt_cases(k, d) + _aes_cases()
    port = free_port()
    lines = ["global", "defaults", "    mode http", "    timeout connect 2s",
             "    timeout client 10s", "    timeout server 10s",
             "frontend fe", "    bind 127.0.0.1:%d" % port, "    option http-buffer-request",
             "    http-request return status 200 content-type text/plain lf-string "
             '"%[req.body,ungrpc(1.2,int32)]/%[req.body,ungrpc(3)]" '
             "if { path /grpc }",
             "    http-request deny deny_status 401 if { path /api } "
             "!{ http_auth_bearer,jwt_verify(RS256,%s/rsa.pub) 1 }" % d,
             "    http-request return status 200 content-type text/plain lf-string "
             '"sub=%[http_auth_bearer,jwt_payload_query(\\$.sub)]" if { path /api }']
    for i, c in enumerate(cases):
        lines.insert(-3, "    http-request return status 200 content-type text/plain "
                     'lf-string "%s" if { path /%d }' % (_case_expr(c), i))
    p = Proxy(d, "\n".join(lines) + "\n", ports=[port])
    yield port, cases, k
    p.stop()


def _params():
    out = []
    for i, c in enumerate(PB):
        out.append(pytest.param(i, id="pb%d:%s" % (i, c[0][-40:])))
    return out


@pytest.mark.parametrize("idx", _params())
def test_protobuf_output(codec_env, idx):
    port, cases, _ = codec_env
    r = httpc.get(port, "/%d" % idx)
    assert r.status == 200
    assert r.body == _expected(cases[idx])


def _check_range(codec_env, start, stop):
    port, cases, _ = codec_env
    bad = []
    for i in range(start, stop):
        c = cases[i]
        if IS_REF and hasattr(c, "marks") and any(m.name == "ours" for m in c.marks):
            continue
        r = httpc.get(port, "/%d" % i)
        if r.status != 200 or r.body != _expected(c):
            bad.append((i, _case_expr(c)[-80:], r.status, r.body[:80], _expected(c)))
    assert not bad, "\n".join(map(repr, bad))


def test_jwt_outputs(codec_env):
    n_jwt = len(codec_env[1]) - len(PB) - len(_aes_cases())
    _check_range(codec_env, len(PB), len(PB) + n_jwt)


def test_aes_gcm_dec_outputs(codec_env):
    n_aes = len(_aes_cases())
    _check_range(codec_env, len(codec_env[1]) - n_aes, len(codec_env[1]))


def test_ungrpc_request_body(codec_env):
    """A gRPC request body read with option http-buffer-request."""
    port = codec_env[0]
    # message: field 1 = { field 2 = 300 (varint) }, field 3 = "xyz"
    inner = bytes([0x10, 0xac, 0x02])
    msg = bytes([0x0a, len(inner)]) + inner + b"\x1a\x03xyz"
    body = b"\x00" + len(msg).to_bytes(4, "big") + msg
    raw = (b"POST /grpc HTTP/1.1\r\nHost: t\r\nContent-Type: application/grpc\r\n"
           b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)) + body
    r = httpc.request(port, raw, method="POST")
    assert r.status == 200
    assert r.body == b"300/xyz"


def test_jwt_bearer_rule(codec_env):
    """A deny rule lets a request in only with a token signed by the right key."""
    port, _, k = codec_env
    good = k.token("RS256")
    r = httpc.get(port, "/api", headers=[("Authorization", "Bearer " + good)])
    assert (r.status, r.body) == (200, b"sub=1234")
    r = httpc.get(port, "/api", headers=[("Authorization", "Bearer " + k.token("HS256"))])
    assert r.status == 401
    bad = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
    r = httpc.get(port, "/api", headers=[("Authorization", "Bearer " + bad)])
    assert r.status == 401
    r = httpc.get(port, "/api")
    assert r.status == 401


BAD = [
    ("%[bin(00),protobuf(1,string)]", "Wrong protocol buffer type 'string'"),
    ("%[bin(00),ungrpc(1,INT32)]", "Wrong protocol buffer type 'INT32'"),
    ("%[bin(00),protobuf(1,)]", "Wrong protocol buffer type ''"),
    ("%[bin(00),protobuf(1.)]", "failed to parse '1.' as type 'Protocol buffers field number'"),
    ("%[bin(00),protobuf(a)]", "failed to parse 'a' as type 'Protocol buffers field number'"),
    ("%[bin(00),protobuf(-1)]", "failed to parse '-1' as type 'Protocol buffers field number'"),
    ("%[str(a),jwt_verify(XX256,k)]", "unknown JWT algorithm: XX256"),
    ("%[str(a),jwt_verify(hs256,k)]", "unknown JWT algorithm: hs256"),
    ("%[str(a),jwt_verify(PS256,k)]", "RSASSA-PSS JWS signing not managed yet"),
    ("%[str(a),jwt_header_query(\\$.a,str)]", 'output_type only supports "int" as argument'),
    ("%[str(a),aes_gcm_dec(100,AAAA,AAAA,AAAA)]", "key size must be 128, 192 or 256 (bits)"),
    ("%[str(a),aes_gcm_dec(128,AAAA,!!,AAAA)]",
     "failed to parse key : argument needs to be base64 encoded, and can either be a string "
     "or a variable"),
    ("%[str(a),aes_gcm_dec(128,foo.bar,AAAA,AAAA)]", "failed to parse nonce : argument needs"),
    ("%[str(a),aes_gcm_dec(128,AAAA,AAAA,A)]", "failed to parse aead_tag : argument needs"),
]


@pytest.mark.parametrize("expr,msg", BAD, ids=[b[0] for b in BAD])
def test_codec_converter_config_error(tmp_path, expr, msg):
    cfg = ("defaults\n    mode http\n    timeout connect 2s\n    timeout client 10s\n"
           "    timeout server 10s\nfrontend fe\n    bind 127.0.0.1:%d\n"
           '    http-request return status 200 content-type text/plain lf-string "%s"\n'
           % (free_port(), expr))
    path = tmp_path / "bad.cfg"
    path.write_text(cfg)
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert msg in out
    assert "bad.cfg:8" in out


def test_codec_converters_accepted(tmp_path):
    """Forms 2.6 accepts: odd paths, empty base64, a key file that does not exist."""
    exprs = ["%[bin(00),protobuf(.1)]", "%[bin(00),protobuf(1..2,sint64)]",
             "%[str(a),aes_gcm_dec(128,,AAAA,AAAA)]",
             "%[str(a),jwt_verify(RS256,/nonexistent/key.pem)]",
             "%[str(a),jwt_verify(txn.alg,txn.key)]", "%[str(a),jwt_payload_query(abc)]"]
    lines = ("defaults\n    mode http\n    timeout connect 2s\n    timeout client 10s\n"
             "    timeout server 10s\nfrontend fe\n    bind 127.0.0.1:%d\n" % free_port())
    for e in exprs:
        lines += ('    http-request return status 200 content-type text/plain '
                  'lf-string "%s"\n' % e)
    path = tmp_path / "ok.cfg"
    path.write_text(lines)
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode == 0, r.stderr
