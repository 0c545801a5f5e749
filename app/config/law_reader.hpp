// Reading and writing the laws of a scenario (failure, repair and straggler laws) through each
// law's own name and fields (sim/law_field.hpp): no law is named here.
#pragma once

#include "app/config/object_reader.hpp"
#include "sim/failure_law.hpp"
#include "sim/straggler_model.hpp"

namespace codesim::app {

/// {"law": NAME, FIELDS}: the law of up times, NAME out of sim::kFailureLawNames; every field
/// is required.
sim::FailureLaw read_failure_law(ObjectReader& r);
/// {"law": NAME, FIELDS}: the law of repair times, NAME out of sim::kRepairLawNames; every
/// field is required.
sim::RepairLaw read_repair_law(ObjectReader& r);
/// {"kind": NAME, FIELDS}: a straggler law, NAME out of sim::kStragglerNames. A missing kind is
/// `defaults`' law, and a missing field is `defaults`' value when it is the same law (else the
/// law's own default).
sim::StragglerSpec read_straggler(ObjectReader& r, const sim::StragglerSpec& defaults);

/// The resolved form of a law, as its reader records it: {"law" or "kind": NAME, FIELDS}.
Json law_json(const sim::FailureLaw& law);
Json law_json(const sim::RepairLaw& law);
Json law_json(const sim::StragglerSpec& law);

}  // namespace codesim::app
