MATCH (u:Unit)
WHERE u._cstar IS NOT NULL
REMOVE u._cstar
