"""Converters and maps as a client sees them: each expression is rendered by an
`http-request return ... lf-string "%[...]"` rule and compared with what HAProxy 2.6 prints.

Owns: the outputs of every converter of the rules engine (numbers, strings, encodings,
dates, JSON, hashes, digests, maps) on constant inputs, variables set by the set-var
converter in the same string, request headers as JSON input, and the config errors of bad
arguments and bad map files. Every case runs against Debian's haproxy too (reference mode)
except those marked: `v32` where 2.6 has a bug fixed later, `ours` for converters this
proxy refuses by name.
"""

import pytest

import httpc
from conftest import Proxy, free_port, run_haproxy

# Sets txn.* variables through the set-var converter, in the string that reads them.
VARS = ("%[str(xyz),set-var(txn.v),bytes(0,0)]%[str(),set-var(txn.e),bytes(0,0)]"
        "%[int(42),set-var(txn.i),bytes(0,0)]%[str(abc),set-var(txn.b),bytes(0,0)]"
        "%[str(a2V5),set-var(txn.k),bytes(0,0)]")

MAPS = {
    "s.map": "# comment\n  key1   value one  \nkey2\tv2\n#x notcomment\n  # indented\n"
             "key1 dup\nonlykey\n\n/api /api-be\n/api/v2 /v2-be\n.example.com dom\n",
    "i.map": "10 ten\n20:30 twenty\n-5 neg\n",
    "ip.map": "10.0.0.0/8 ten\n10.1.0.0/16 ten-one\n2001:db8::/32 v6\n127.0.0.1 lo\n"
              "::ffff:192.168.0.0/112 mapped\n",
    "re.map": "^/user/([0-9]+)/(.*)$ uid=\\1,rest=\\2\nfoo(bar)? f\\1x\n",
    "crlf.map": "k1 v1\r\nk2 v2 \r\n",
    "iv.map": "p +5\nm -3\ne\nw 99999999999999999999\nn -\n",
    "ipv.map": "a 1.2.3.4\nb ::1\nc 010.001.002.003\n",
    "bad_int.map": "a 12\nb -3\n\n# c\nc x\n",
    "bad_ip.map": "a 1.2.3.4\nb 12\n",
}

V32 = pytest.mark.v32

CASES = [
    # arithmetic, saturating
    ("%[int(5),add(3)]", b"8"),
    ("%[int(5),add(-3)]", b"2"),
    ("%[int(5),sub(-3)]", b"8"),
    pytest.param("%[int(-5),add(-3)]", b"-8", marks=V32),  # 2.6: LLONG_MAX (HAProxy bug 2216)
    pytest.param("%[int(-5),sub(3)]", b"-8", marks=V32),
    ("%[int(9223372036854775807),add(1)]", b"9223372036854775807"),
    ("%[int(-9223372036854775807),sub(2)]", b"-9223372036854775808"),
    ("%[int(5),sub(-9223372036854775808)]", b"9223372036854775807"),
    ("%[int(3037000500),mul(3037000500)]", b"9223372036854775807"),
    ("%[int(-3037000500),mul(3037000500)]", b"-9223372036854775808"),
    ("%[int(7),div(0)]", b"9223372036854775807"),
    ("%[int(7),div(-2)]", b"-3"),
    ("%[int(-7),mod(2)]", b"-1"),
    ("%[int(7),mod(0)]", b"0"),
    ("%[int(-9223372036854775808),neg]", b"9223372036854775807"),
    ("%[int(-9223372036854775808),div(-1)]", b"9223372036854775807"),
    ("%[int(-9223372036854775808),mod(-1)]", b"0"),
    ("%[int(5),add(99999999999999999999)]", b"9223372036854775807"),
    ("%[int(6),and(3)]", b"2"),
    ("%[int(6),or(3)]", b"7"),
    ("%[int(6),xor(3)]", b"5"),
    ("%[int(6),cpl]", b"-7"),
    ("%[int(6),not]", b"0"),
    ("%[int(0),not]", b"1"),
    ("%[int(6),bool]", b"1"),
    ("%[int(7),odd]", b"1"),
    ("%[int(7),even]", b"0"),
    ("%[int(5),add()]", b"5"),
    (VARS + "%[int(5),add(txn.i)]", b"47"),
    (VARS + "%[int(5),mul(txn.b)]", b"0"),
    (VARS + "%[int(5),add(txn.nope)]", b""),
    ("%[int(1),iif(yes,no)]", b"yes"),
    ("%[int(0),iif(yes,no)]", b"no"),
    ("%[str(x),iif(yes,no)]", b"no"),
    ("%[str(12abc),add(1)]", b"13"),
    ("%[str(x),add(1)]", b"1"),
    ("%[str(),add(1)]", b""),
    ("%[int(258),htonl,hex]", b"00000102"),
    ("%[int(258),hex]", b"0000000000000102"),
    # addresses
    ("%[str(127.0.0.1),ipmask(24)]", b"127.0.0.0"),
    ("%[str(10.1.2.3),ipmask(255.255.0.0)]", b"10.1.0.0"),
    ("%[str(2001:db8::1),ipmask(24)]", b""),
    ("%[str(2001:db8:1:2::1),ipmask(24,32)]", b"2001:db8::"),
    ("%[str(2001:db8:1:2::1),ipmask(24,ffff:ff00::)]", b"2001:d00::"),
    ("%[str(::ffff:10.1.2.3),ipmask(8,64)]", b"10.0.0.0"),
    # strings
    ("%[str(aBc),lower]", b"abc"),
    ("%[str(aBc),upper]", b"ABC"),
    ("%[str(abc),length]", b"3"),
    ("%[str(abcdef),bytes(2)]", b"cdef"),
    ("%[str(abcdef),bytes(2,3)]", b"cde"),
    ("%[str(abcdef),bytes(10)]", b""),
    ("%[str(abcdef),bytes(-1)]", b""),
    ("%[str(abcdef),bytes(2,-1)]", b"cdef"),
    ("%[str(abc),ltrim(ab)]", b"c"),
    ("%[str(abc),rtrim(cb)]", b"a"),
    ("%[str(ab\\r\\ncd),cut_crlf]", b"ab"),
    ("%[str(aAa),regsub(a,b)]", b"bAa"),
    ("%[str(aAa),regsub(a,b,gi)]", b"bbb"),
    ("%[str(xzxyz),regsub(x*y*,A,g)]", b"AAzAAzA"),
    ("%[str(abc),concat(x,,y)]", b"abcxy"),
    (VARS + "%[str(abc),concat(<,txn.v,>)]", b"abc<xyz>"),
    (VARS + "%[str(abc),concat(<,txn.i,>)]", b"abc<42>"),
    (VARS + "%[str(abc),concat(<,txn.none,>)]", b"abc<>"),
    ("%[str(abc),add_item(-,,sfx)]", b"abc-sfx"),
    ("%[str(),add_item(-,,sfx)]", b"sfx"),
    (VARS + "%[str(abc),add_item(-,txn.v)]", b"abc-xyz"),
    (VARS + "%[str(abc),add_item(-,txn.e)]", b"abc"),
    (VARS + "%[str(abc),add_item(-,txn.e,s)]", b"abc-s"),
    (VARS + "%[str(),add_item(-,txn.v)]", b"xyz"),
    (VARS + "%[str(abc),strcmp(txn.b)]", b"0"),
    (VARS + "%[str(abZ),strcmp(txn.b)]", b"-9"),
    (VARS + "%[str(ab),strcmp(txn.b)]", b"-1"),
    (VARS + "%[str(abcd),strcmp(txn.b)]", b"1"),
    (VARS + "%[str(abc),strcmp(txn.none)]", b""),
    (VARS + "%[str(abc),secure_memcmp(txn.b)]", b"1"),
    (VARS + "%[str(abd),secure_memcmp(txn.b)]", b"0"),
    (VARS + "%[str(42),secure_memcmp(txn.i)]", b"0"),
    ("%[str(Www.Example.COM:8080),host_only]", b"www.example.com"),
    ("%[str(Www.Example.COM:8080),port_only]", b"8080"),
    ("%[str([::1]:80),host_only]", b"[::1]"),
    ("%[str(::1),port_only]", b"1"),
    ("%[str(h:99999999999),port_only]", b"1215752191"),
    ("%[str(en-US;q=0.8),language(en;fr)]", b"en"),
    ("%[str(de),language(en;fr,xx)]", b"xx"),
    ("%[req.fhdr(x-lang),language(en;fr,d)]", b"en"),
    # encodings
    ("%[str(ab),base64]", b"YWI="),
    ("%[str(YWI=),b64dec]", b"ab"),
    ("%[str(YWI),b64dec]", b""),
    ("%[str(ab?),ub64enc]", b"YWI_"),
    ("%[str(YWI),ub64dec]", b"ab"),
    ("%[str(ab),hex]", b"6162"),
    ("%[str(FFFFFFFFFFFFFFFF),hex2i]", b"-1"),
    ("%[str(xx),hex2i]", b""),
    ("%[str(a%20b+c),url_dec]", b"a b+c"),
    ("%[str(a%20b+c),url_dec(1)]", b"a b c"),
    ("%[str(a?b+c),url_dec]", b"a?b c"),
    ("%[str(a b&c=d/),url_enc]", b"a%20b%26c%3Dd%2F"),
    ("%[str(abcdefg),be2dec(:,2)]", b"24930:25444:25958:103"),
    ("%[str(abcdefg),be2dec(-,2,1)]", b"24930-25444-25958"),
    ("%[str(abcdefg),be2hex(:,2)]", b"6162:6364:6566:67"),
    ("%[str(abcdefgh),be2hex(,3,1)]", b"616263646566"),
    ("%[str(f1_f2_f3__f5),field(2,_,2)]", b"f2_f3"),
    ("%[str(f1_f2_f3__f5),field(-2,_,3)]", b"f2_f3_"),
    ("%[str(f1_f2_f3__f5),field(4,_)]", b""),
    ("%[str(f1_f2_f3__f5),word(4,_)]", b"f5"),
    ("%[str(f1_f2_f3__f5),word(-1,_,0)]", b"f1_f2_f3__f5"),
    # dates
    ("%[int(0),utime(%Y-%m-%d)]", b"1970-01-01"),
    ("%[int(86400),utime(%Y-%m-%d,3600)]", b"1970-01-02"),
    ("%[int(1700000000),http_date]", b"Tue, 14 Nov 2023 22:13:20 GMT"),
    ("%[int(1700000000),http_date(3600)]", b"Tue, 14 Nov 2023 23:13:20 GMT"),
    ("%[int(1700000000005),http_date(0,ms)]", b"Tue, 14 Nov 2023 22:13:20.5 GMT"),
    # JSON (the document comes in a header)
    ("%[req.fhdr(x-json),json]",
     b'{\\"a\\":[10,20,{\\"b\\":\\"deep\\"}],\\"n\\":1.5,\\"t\\":true}'),
    ("%[req.fhdr(x-json),json_query(\\$.a[2].b)]", b"deep"),
    ("%[req.fhdr(x-json),json_query(\\$.a[1],int),add(1)]", b"21"),
    ("%[req.fhdr(x-json),json_query(\\$.n)]", b"1.5"),
    ("%[req.fhdr(x-json),json_query(\\$.n,int)]", b"1"),
    ("%[req.fhdr(x-json),json_query(\\$.t)]", b"1"),
    ("%[req.fhdr(x-json),json_query(\\$.zz)]", b""),
    # hashes
    ("%[str(a),crc32]", b"3904355907"),
    ("%[str(a),crc32(1)]", b"1288200982"),
    ("%[str(a),crc32c]", b"3251651376"),
    ("%[str(a),djb2]", b"177670"),
    ("%[str(a),sdbm]", b"97"),
    ("%[str(a),wt6]", b"1900802597"),
    ("%[str(a),xxh32(-1)]", b"3443684653"),
    ("%[str(a),xxh64]", b"-3292477735350538661"),
    ("%[str(a),xxh3(5)]", b"2854901637758732422"),
    ("%[str(a),sha1,hex]", b"86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8"),
    ("%[str(a),sha2(224),hex]", b"ABD37534C7D9A2EFB9465DE931CD7055FFDB8879563AE98078D6D6D5"),
    ("%[str(a),digest(md5),hex]", b"0CC175B9C0F1B6A831C399E269772661"),
    ("%[str(a),hmac(sha256,a2V5),hex]",
     b"780C3DB4CE3DE5B9E55816FBA98F590631D96C075271B26976238D5F4444219B"),
    (VARS + "%[str(a),hmac(sha256,txn.k),hex]",
     b"780C3DB4CE3DE5B9E55816FBA98F590631D96C075271B26976238D5F4444219B"),
    # maps
    ("[%[str(key1),map(@/s.map)]]", b"[value one]"),
    ("[%[str(key2),map_str(@/s.map)]]", b"[v2]"),
    ("[%[str(onlykey),map(@/s.map)]]", b"[]"),
    ("[%[str(#),map(@/s.map)]]", b"[indented]"),
    ("[%[str(nokey),map(@/s.map,def)]]", b"[def]"),
    ("[%[str(/api/v2/x),map_beg(@/s.map)]]", b"[/v2-be]"),
    ("[%[str(/api/v3),map_beg(@/s.map)]]", b"[/api-be]"),
    ("[%[str(www.example.com),map_dom(@/s.map)]]", b"[dom]"),
    ("[%[str(a/api/b),map_dir(@/s.map)]]", b"[/api-be]"),
    ("[%[str(xkey2y),map_sub(@/s.map)]]", b"[v2]"),
    ("[%[str(xxkey1),map_end(@/s.map)]]", b"[value one]"),
    ("[%[int(25),map_int(@/i.map)]]", b"[twenty]"),
    ("[%[int(-5),map_int(@/i.map)]]", b"[neg]"),
    ("[%[str(10.1.2.3),map_ip(@/ip.map)]]", b"[ten-one]"),
    ("[%[str(10.2.2.3),map_ip(@/ip.map)]]", b"[ten]"),
    ("[%[str(127.0.0.1),map_ip(@/ip.map)]]", b"[lo]"),
    ("[%[str(2001:db8::5),map_ip(@/ip.map)]]", b"[v6]"),
    ("[%[str(::ffff:10.1.2.3),map_ip(@/ip.map)]]", b"[ten-one]"),
    ("[%[str(2002:0a01:0203::1),map_ip(@/ip.map)]]", b"[ten-one]"),
    ("[%[str(192.168.3.4),map_ip(@/ip.map)]]", b"[mapped]"),
    ("[%[str(/user/42/profile),map_regm(@/re.map)]]", b"[uid=42,rest=profile]"),
    ("[%[str(xfoo),map_regm(@/re.map)]]", b"[fx]"),
    ("[%[str(xfoo),map_reg(@/re.map)]]", b"[f\\1x]"),
    ("[%[str(k2),map(@/crlf.map)]]", b"[v2]"),
    ("[%[str(p),map_str_int(@/iv.map),add(1)]]", b"[6]"),
    ("[%[str(e),map_str_int(@/iv.map)]]", b"[0]"),
    ("[%[str(w),map_str_int(@/iv.map)]]", b"[9223372036854775807]"),
    ("[%[str(c),map_str_ip(@/ipv.map)]]", b"[10.1.2.3]"),
    ("[%[str(z),map_str_ip(@/ipv.map,::2)]]", b"[::2]"),
    ("[%[str(z),map_str_int(@/iv.map,+7)]]", b"[7]"),
]

HEADERS = [("X-Lang", "fr;q=0.5 , en;q=0.7"),
           ("X-Json", '{"a":[10,20,{"b":"deep"}],"n":1.5,"t":true}')]


def _case_expr(c):
    return c.values[0] if hasattr(c, "values") else c[0]


@pytest.fixture(scope="module")
def conv_px(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("conv")
    for name, text in MAPS.items():
        (tmp / name).write_bytes(text.encode())
    port = free_port()
    lines = ["global", "defaults", "    mode http", "    timeout connect 2s",
             "    timeout client 10s", "    timeout server 10s",
             "frontend fe", "    bind 127.0.0.1:%d" % port]
    for i, c in enumerate(CASES):
        expr = _case_expr(c).replace("@", str(tmp)).replace('"', '\\"')
        lines.append('    http-request return status 200 content-type text/plain '
                     'lf-string "%s" if { path /%d }' % (expr, i))
    p = Proxy(tmp, "\n".join(lines) + "\n", ports=[port])
    yield port
    p.stop()


def _params():
    out = []
    for i, c in enumerate(CASES):
        marks = c.marks if hasattr(c, "values") else ()
        out.append(pytest.param(i, marks=marks, id="%d:%s" % (i, _case_expr(c)[-50:])))
    return out


def _expected(c):
    return c.values[1] if hasattr(c, "values") else c[1]


@pytest.mark.parametrize("idx", _params())
def test_converter_output(conv_px, idx):
    r = httpc.get(conv_px, "/%d" % idx, headers=HEADERS)
    assert r.status == 200
    assert r.body == _expected(CASES[idx])


# Bad arguments and bad map files are config errors whose text both versions share.
BAD = [
    ("%[str(a),regsub(a,b,x)]", "invalid regex flag 'x', only 'i' and 'g' are supported"),
    ("%[int(5),add(1a)]", "expects an integer or a variable name"),
    ("%[str(a),add_item(-,,)]", "one of the optional arguments has to be nonempty"),
    ("%[str(a),field(0,.)]", "Unexpected value 0 for index"),
    ("%[str(a),word(1,)]", "Empty separators list"),
    ("%[str(a),be2dec(:,9)]", "chunk_size out of [1..8] range (9)"),
    ("%[str(a),be2hex(:)]", "chunk_size needs to be positive (0)"),
    ("%[str(a),url_enc(x)]", "Unexpected encode type. Allowed value is 'query'"),
    ("%[int(1),http_date(0,xs)]", "expects 's', 'ms' or 'us', got 'xs'"),
    ("%[str(a),json(x)]", "Unexpected input code type"),
    ("%[str(a),json_query(x,str)]", 'output_type only supports "int" as argument'),
    ("%[str(a),sha2(100)]", "Unsupported number of bits: '100'"),
    ("%[str(a),digest(nope)]", "algorithm must be a valid OpenSSL message digest name"),
    ("%[str(a),hmac(sha256,@@@)]", "argument needs to be base64 encoded"),
    ("%[str(a),map(@/none.map)]", "failed to open pattern file <@/none.map>"),
    ("%[str(a),map_str_int(@/bad_int.map)]", "unable to parse 'x' at line 5 of file "
                                              "'@/bad_int.map'"),
    ("%[str(a),map_str_ip(@/bad_ip.map)]", "unable to parse '12' at line 2 of file "
                                            "'@/bad_ip.map'"),
    ("%[str(a),map_str_ip(@/ipv.map,x)]", "map: cannot parse default ip <x>"),
]


@pytest.mark.parametrize("expr,msg", BAD, ids=[b[0] for b in BAD])
def test_converter_config_error(tmp_path, expr, msg):
    for name, text in MAPS.items():
        (tmp_path / name).write_bytes(text.encode())
    cfg = ("defaults\n    mode http\n    timeout connect 2s\n    timeout client 10s\n"
           "    timeout server 10s\nfrontend fe\n    bind 127.0.0.1:%d\n"
           '    http-request return status 200 content-type text/plain lf-string "%s"\n'
           % (free_port(), expr.replace("@", str(tmp_path))))
    path = tmp_path / "bad.cfg"
    path.write_text(cfg)
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert msg.replace("@", str(tmp_path)) in out
    assert "bad.cfg:8" in out


@pytest.mark.ours
def test_converter_not_supported_yet(tmp_path):
    """HAProxy converters this proxy lacks are refused by name and reason, not as unknown words."""
    cfg = ("defaults\n    mode http\n    timeout connect 2s\n    timeout client 10s\n"
           "    timeout server 10s\nfrontend fe\n    bind 127.0.0.1:%d\n"
           '    http-request return status 200 content-type text/plain '
           'lf-string "%%[str(a),da-csv-conv(a)]"\n' % free_port())
    path = tmp_path / "bad.cfg"
    path.write_text(cfg)
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0
    assert "bad.cfg:8" in r.stderr
    assert "converter 'da-csv-conv' needs a device-detection library" in r.stderr
