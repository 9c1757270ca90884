-- wrk script: 100,000 distinct URLs (one query parameter each), so each becomes its own cached resource.
local i = 0
request = function()
  i = i + 1
  if i > 100000 then i = 1 end
  return wrk.format("GET", "/o16k.bin?u=" .. i)
end
