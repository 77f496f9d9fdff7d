// Units whose attributes hold a name ($needle: the name as a JSON key, "name":)
// without its `@NAME` property yet ({property}: the name in backquotes)
MATCH (u:Unit)
WHERE u.attributes CONTAINS $needle AND u.{property} IS NULL
RETURN u.uid AS uid, u.attributes AS attributes
LIMIT 20000
