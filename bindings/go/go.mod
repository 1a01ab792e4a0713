module bpaggregation

go 1.19
