// AxPRE c*: read the classes computed by cstar_level.cypher
MATCH (u:Unit)
RETURN u.seq AS seq, u.pre AS pre, u._cstar AS key
