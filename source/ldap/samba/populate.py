# Adds an LDIF to a provisioned, stopped Samba domain in one transaction
# and sets account passwords: far faster than adding over LDAP.
# Arguments: smb.conf, then the LDIF on standard input, then
# sAMAccountName=password pairs (one per line) after a line "--".
import sys
from samba.samdb import SamDB
from samba.auth import system_session
from samba.param import LoadParm

lp = LoadParm()
lp.load(sys.argv[1])
db = SamDB(url=lp.private_path("sam.ldb"), session_info=system_session(), lp=lp)
ldif, _, passwords = sys.stdin.read().partition("\n--\n")
db.transaction_start()
try:
    if ldif.strip():
        db.add_ldif(ldif)
    db.transaction_commit()
except Exception:
    db.transaction_cancel()
    raise
for line in passwords.splitlines():
    if line:
        name, _, pw = line.partition("=")
        db.setpassword("(sAMAccountName=%s)" % name, pw, force_change_at_next_login=False)
