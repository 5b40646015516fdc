# Adds an LDIF (additions, and changes with changetype: modify) to a
# provisioned, stopped Samba domain in one transaction and sets account
# passwords: far faster than adding over LDAP.
# Arguments: smb.conf. Standard input: the LDIF, a line "--", then
# sAMAccountName=password lines.
import sys
import ldb
from samba.samdb import SamDB
from samba.auth import system_session
from samba.param import LoadParm

lp = LoadParm()
lp.load(sys.argv[1])
db = SamDB(url=lp.private_path("sam.ldb"), session_info=system_session(), lp=lp)
ldif, _, passwords = sys.stdin.read().partition("\n--\n")
db.transaction_start()
try:
    for changetype, msg in db.parse_ldif(ldif):
        if changetype == ldb.CHANGETYPE_MODIFY:
            db.modify(msg)
        else:
            db.add(msg)
    db.transaction_commit()
except Exception:
    db.transaction_cancel()
    raise
for line in passwords.splitlines():
    if line:
        name, _, pw = line.partition("=")
        db.setpassword("(sAMAccountName=%s)" % ldb.binary_encode(name), pw, force_change_at_next_login=False)
