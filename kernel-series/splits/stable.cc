# Added to get_maintainer.pl's recipients for the stable split.
Justin Iurman <justin.iurman@uliege.be> (author of 968691c777af and of the 6.13 rewrite)
