# Added to get_maintainer.pl's recipients for the net split.
Justin Iurman <justin.iurman@uliege.be> (author of 3edede08ff37)
