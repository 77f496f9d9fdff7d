// AxPRE label: same tag
MATCH (u:Unit)
RETURN u.seq AS seq, u.pre AS pre, u.tag AS key
