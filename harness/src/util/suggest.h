// "Did you mean …?" for misspelt keys, ids, flags and subcommands.
#pragma once

#include <string>
#include <vector>

namespace opmatrix {

std::size_t edit_distance(const std::string& a, const std::string& b);

// The closest candidate within a distance that still reads as a typo, or "".
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace opmatrix
