// Reading and writing the laws of a scenario (failure and repair laws) through each law's own
// name and fields (sim/law_field.hpp): no law is named here.
#pragma once

#include "app/config/object_reader.hpp"
#include "sim/failure_law.hpp"

namespace codesim::app {

/// {"law": NAME, FIELDS}: the law of up times, NAME out of sim::kFailureLawNames; every field
/// is required.
sim::FailureLaw read_failure_law(ObjectReader& r);
/// {"law": NAME, FIELDS}: the law of repair times, NAME out of sim::kRepairLawNames; every
/// field is required.
sim::RepairLaw read_repair_law(ObjectReader& r);

/// The resolved form of a law, as its reader records it: {"law": NAME, FIELDS}.
Json law_json(const sim::FailureLaw& law);
Json law_json(const sim::RepairLaw& law);

}  // namespace codesim::app
