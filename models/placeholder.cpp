// placeholder until the coding interface lands
