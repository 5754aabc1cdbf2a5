//! The stretch `ch15/fits-form` (`main.rs` declares it, `route.rs` calls it).

// STRETCH(ch15/fits-form): `until_it_fits`: an accepted form whose content
// does not fit its `requestedSchema` is not sent; the user is told why and
// asked again, three times in all at most (`ASKS`), then it is declined.
// `misfit` says why: a required field missing, a value of the wrong type,
// not one of the listed choices, or outside its bounds.
// END(ch15/fits-form)
