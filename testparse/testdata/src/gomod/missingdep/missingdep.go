package missingdep

import _ "example.org/not/there"
