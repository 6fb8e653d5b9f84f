-- Raises an error while it is loaded (the body runs at start-up).
local limit = 3
error("refusing to load: limit " .. limit)
